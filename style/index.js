import './base.css';
import './workflow.css';
import './conversations.css';
